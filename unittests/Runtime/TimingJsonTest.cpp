//===- TimingJsonTest.cpp - nova-run --timing-json's records --------------===//

#include "nova/Runtime/TimingJson.h"

#include "gtest/gtest.h"

using namespace nova;

namespace {

TEST(TimingJson, EntryTimingKeepsEverySampleAtFullPrecision) {
  EntryTiming t;
  t.entry = "gemm";
  t.device = "NVIDIA H200";
  t.warmup = 2;
  // Unsorted samples: the median is the middle one once sorted; a value
  // below a microsecond survives (the printed line would round it to 0).
  t.deviceMilliseconds = {0.004125, 0.0005, 0.003};
  t.hostEnqueueMicroseconds = 2.5;
  t.launches = 1;
  t.graphs = false;
  EXPECT_EQ(timingJson(t),
            "{\"kind\": \"timing\", \"entry\": \"gemm\", \"device\": \"NVIDIA "
            "H200\", \"runs\": 3, \"warmup\": 2, \"median_ms\": "
            "0.003, \"min_ms\": 0.0005, \"mean_ms\": 0.0025416666666666665, "
            "\"samples_ms\": [0.004125, 0.0005, 0.003], \"host_enqueue_us\": "
            "2.5, \"launches\": "
            "1, \"graphs\": false}\n");
}

TEST(TimingJson, ProfileListsKernelsInTheirOrderWithEscapedNames) {
  KernelProfile slow, fast;
  slow.kernel = "matmul_1";
  slow.launches = 2;
  slow.milliseconds = 0.25;
  slow.predictedMilliseconds = 0.2;
  slow.flops = 1e9;
  slow.bytes = 4e6;
  slow.dtype = DType::BF16;
  slow.sources = {"m.py:3", "say \"hi\".py:1"};
  fast.kernel = "row_reduction_2";
  fast.launches = 1;
  fast.milliseconds = 0.125;
  fast.bytes = 8e6;
  EXPECT_EQ(profileJson({slow, fast}, "train_step", "H200", 20),
            "{\"kind\": \"profile\", \"entry\": \"train_step\", \"device\": "
            "\"H200\", \"runs\": 20, \"step_ms\": 0.375, \"kernels\": "
            "[{\"kernel\": \"matmul_1\", \"launches\": 2, \"ms\": 0.25, "
            "\"predicted_ms\": 0.2, "
            "\"bytes\": 4000000, \"flops\": 1000000000, \"dtype\": \"BF16\", "
            "\"sources\": [\"m.py:3\", \"say \\\"hi\\\".py:1\"]}, "
            "{\"kernel\": \"row_reduction_2\", \"launches\": 1, \"ms\": "
            "0.125, \"predicted_ms\": null, \"bytes\": 8000000, \"flops\": 0, \"dtype\": \"F32\", "
            "\"sources\": []}]}\n");
}

TEST(TimingJson, NoSamplesGivesZerosNotGarbage) {
  EntryTiming t;
  t.entry = "e";
  EXPECT_NE(timingJson(t).find("\"runs\": 0, \"warmup\": 0, \"median_ms\": 0, "
                               "\"min_ms\": 0, \"mean_ms\": 0, \"samples_ms\": "
                               "[]"),
            std::string::npos);
}

} // namespace
