//===- CudaBackend.cpp - nova-run on .nvx executables ---------------------===//
//
// MLIR-free. Inputs by name (or random), one run, outputs printed / saved /
// compared; --iterations times the entry with CUDA events (median) and the
// host's enqueue cost; --train drives a training-step entry with its state
// resident on the device.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "Common.h"
#include "nova/Runtime/Profile.h"
#include "nova/Runtime/Runtime.h"
#include "nova/Runtime/TimingJson.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <fstream>
#include <set>

namespace nova::run {

namespace {
int fail(const std::string &message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

/// Reports the checks a run failed (`report`, its status record:
/// "nova-run: error: [step N: ] labels out of range (check_labels in kernel
/// @k): ...") and, in guard-band mode, the guards the last run overwrote;
/// true when none.
bool checksPassed(Instance &inst, const StatusReport &report,
                  const std::string &prefix, std::string &error) {
  std::vector<std::string> guards;
  if (!inst.checkGuardBands(guards, error))
    return false;
  std::vector<std::string> lines = inst.describeStatus(report);
  lines.insert(lines.end(), guards.begin(), guards.end());
  for (const std::string &line : lines)
    std::fprintf(stderr, "nova-run: error: %s%s\n", prefix.c_str(),
                 line.c_str());
  return lines.empty();
}

/// --timing-json: `text` to `o.timingJson`, when given.
bool writeTimingJson(const RunOptions &o, const std::string &text,
                     std::string &error) {
  if (o.timingJson.empty())
    return true;
  std::ofstream out(o.timingJson, std::ios::binary);
  if (out << text && out.flush())
    return true;
  error = "--timing-json: cannot write '" + o.timingJson + "'";
  return false;
}

std::vector<std::string> namesOf(const std::vector<TensorDesc> &ts) {
  std::vector<std::string> names;
  for (const TensorDesc &t : ts)
    names.push_back(t.name);
  return names;
}

/// --iterations: median device time per run by CUDA events and the host
/// time spent enqueueing, after warm-up runs.
int timeEntry(Device &device, Instance &inst, const RunOptions &o) {
  const cuda::Driver &drv = device.driver();
  std::string error;
  for (int w = 0; w < o.warmup; ++w)
    if (!inst.run(error))
      return fail(error);
  cuda::CUevent start = nullptr, stop = nullptr;
  if (!device.check(drv.cuEventCreate(&start, 0), "cuEventCreate", error) ||
      !device.check(drv.cuEventCreate(&stop, 0), "cuEventCreate", error))
    return fail(error);
  std::vector<double> deviceMs, hostUs;
  for (int i = 0; i < o.iterations; ++i) {
    if (!device.check(drv.cuEventRecord(start, device.stream()),
                      "cuEventRecord", error))
      return fail(error);
    auto h0 = std::chrono::steady_clock::now();
    if (!inst.enqueue(error))
      return fail(error);
    auto h1 = std::chrono::steady_clock::now();
    float ms = 0;
    if (!device.check(drv.cuEventRecord(stop, device.stream()), "cuEventRecord",
                      error) ||
        !device.check(drv.cuEventSynchronize(stop), "cuEventSynchronize",
                      error) ||
        !device.check(drv.cuEventElapsedTime(&ms, start, stop),
                      "cuEventElapsedTime", error))
      return fail(error);
    deviceMs.push_back(ms);
    hostUs.push_back(
        std::chrono::duration<double, std::micro>(h1 - h0).count());
  }
  drv.cuEventDestroy(start);
  drv.cuEventDestroy(stop);
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  size_t launches = inst.entry().launches.size();
  double host = median(hostUs);
  std::printf("timing %s: %d runs after %d warm-up, median %.3f ms per run "
              "(CUDA events); host enqueue %.2f us per run, %.3f us per "
              "launch over %zu launches (graphs %s)\n",
              inst.entry().name.c_str(), o.iterations, o.warmup,
              median(deviceMs), host, launches ? host / double(launches) : 0.0,
              launches, o.graphs ? "on" : "off");
  EntryTiming timing;
  timing.entry = inst.entry().name;
  timing.device = device.name();
  timing.warmup = o.warmup;
  timing.deviceMilliseconds = deviceMs;
  timing.hostEnqueueMicroseconds = host;
  timing.launches = launches;
  timing.graphs = o.graphs;
  if (!writeTimingJson(o, timingJson(timing), error))
    return fail(error);
  return 0;
}

/// --profile: each launch timed on its own, the kernels' table printed.
int profile(Device &device, Instance &inst, const ExecutableDesc &exe,
            const RunOptions &o) {
  std::string error;
  for (int w = 0; w < o.warmup; ++w)
    if (!inst.run(error))
      return fail(error);
  int runs = o.iterations > 0 ? o.iterations : 20;
  std::vector<double> milliseconds;
  if (!inst.profileLaunches(runs, milliseconds, error))
    return fail(error);
  std::optional<DeviceDescriptor> ceilings =
      DeviceDescriptor::lookup(exe.target);
  std::vector<KernelProfile> rows =
      profileKernels(exe, inst.entry(), milliseconds);
  std::fputs(formatProfile(rows, inst.entry().name, device.name(),
                           ceilings ? &*ceilings : nullptr, runs)
                 .c_str(),
             stdout);
  if (!writeTimingJson(
          o, profileJson(rows, inst.entry().name, device.name(), runs), error))
    return fail(error);
  return 0;
}

int train(Device &device, Instance &inst, const RunOptions &o) {
  const EntryDesc &e = inst.entry();
  std::string error;
  TrainingInputs inputs = findTrainingInputs(namesOf(e.inputs));
  const int step = inputs.step, lrInput = inputs.lr, tokens = inputs.tokens,
            targets = inputs.targets;
  int loss = -1;
  for (size_t i = 0; i < e.outputs.size(); ++i)
    if (e.outputs[i].name == "loss")
      loss = int(i);
  if (!inputs.complete() || loss < 0)
    return fail("--train needs inputs named 'step', 'lr', 'tokens', "
                "'targets' and an output named 'loss'");
  // Checked before anything of those shapes is allocated.
  for (auto [name, desc] :
       {std::pair<const char *, const TensorDesc *>{"step", &e.inputs[step]},
        {"lr", &e.inputs[lrInput]},
        {"loss", &e.outputs[loss]}})
    if (std::string why = notAScalar(name, desc->dtype, desc->shape);
        !why.empty())
      return fail(why);
  HostTensor tok(e.inputs[tokens].dtype, e.inputs[tokens].shape),
      tgt(e.inputs[targets].dtype, e.inputs[targets].shape);
  if (tok.shape.size() < 2 || tok.isFloat())
    return fail("'tokens' must be an integer [micro-batches x] batch x "
                "sequence tensor");

  // State: every input an output aliases. Parameters from --params, Adam
  // moments zero (the arena starts zeroed). It stays on the device.
  std::map<std::string, HostTensor> init;
  if (!o.params.empty() && !loadNamed({o.params}, init, error))
    return fail(error);
  for (const TensorDesc &out : e.outputs) {
    if (out.alias < 0)
      continue;
    const TensorDesc &in = e.inputs[out.alias];
    if (isOptimizerMoment(in.name))
      continue;
    auto it = init.find(in.name);
    if (it == init.end())
      return fail("no initial value for parameter '" + in.name +
                  "' (give --params FILE)");
    if (!inst.setInput(out.alias, it->second, error))
      return fail(error);
  }
  TrainingBatches batches;
  if (!batches.open(o.text, o.batches, tok.shape, error))
    return fail(error);
  std::mt19937_64 rng(o.seed.value_or(0));
  HostTensor stepT(e.inputs[step].dtype, e.inputs[step].shape),
      lrT(e.inputs[lrInput].dtype, e.inputs[lrInput].shape);
  TrainingLog log(o.steps, tok.numElements(), o.logEvery,
                  "cuda on " + device.name());
  if (!o.lossLog.empty() && !log.logLossesTo(o.lossLog, error))
    return fail(error);
  // Step s + 1 is enqueued (its batch copied in through page-locked
  // staging) before step s's loss and status record are read back, so the
  // device goes from step to step without waiting for the host. A failed
  // check is thus seen with the next step in flight; training stops there
  // and saves nothing, so that step is never observed. Guard bands are
  // checked over the whole arena after each step, so with them one step
  // runs at a time.
  const bool ahead = e.guards.empty();
  using Clock = std::chrono::steady_clock;
  struct Step {
    Instance::PendingRun run;
    double lr;
    Clock::time_point enqueued;
  };
  std::deque<Step> pending;
  auto enqueueStep = [&](int s) {
    batches.next(rng, tok, tgt);
    setScalar(stepT, s);
    double lr =
        scheduledLearningRate(o.lr, o.lrSchedule, o.lrWarmup, o.steps, s);
    setScalar(lrT, lr);
    Step st{{}, lr, Clock::now()};
    if (!inst.enqueueRun({{tokens, &tok},
                          {targets, &tgt},
                          {size_t(step), &stepT},
                          {size_t(lrInput), &lrT}},
                         {size_t(loss)}, st.run, error))
      return false;
    pending.push_back(st);
    return true;
  };
  Clock::time_point lastDone;
  for (int s = 1; s <= o.steps; ++s) {
    if (pending.empty() && !enqueueStep(s))
      return fail(error);
    if (ahead && s < o.steps && !enqueueStep(s + 1))
      return fail(error);
    Step st = pending.front();
    pending.pop_front();
    std::vector<HostTensor> read;
    StatusReport report;
    if (!inst.finishRun(st.run, read, report, error))
      return fail(error);
    // A failed check stops training: the optimizer has skipped this step's
    // update, and bad data or a diverged model would fail the next too.
    error.clear();
    if (!checksPassed(inst, report, "step " + std::to_string(s) + ": ", error))
      return error.empty() ? 1 : fail(error);
    // The step's time: from when the device could start it (its enqueue,
    // or the previous step's end when it was queued behind that) to its end.
    Clock::time_point done = Clock::now(),
                      from =
                          s > 1 ? std::max(st.enqueued, lastDone) : st.enqueued;
    double seconds = std::chrono::duration<double>(done - from).count();
    lastDone = done;
    if (!log.step(s, read[0].get(0), st.lr, seconds))
      return 1;
  }
  log.summary();
  // --save: the parameters; --save-state: every aliased input (moments too).
  auto save = [&](const std::string &path, bool moments) {
    std::vector<std::string> names;
    std::vector<HostTensor> values;
    for (const TensorDesc &out : e.outputs) {
      if (out.alias < 0 ||
          (!moments && isOptimizerMoment(e.inputs[out.alias].name)))
        continue;
      HostTensor v;
      if (!inst.getInput(out.alias, v, error))
        return false;
      names.push_back(e.inputs[out.alias].name);
      values.push_back(std::move(v));
    }
    if (!writeNamed(path, names, values, error))
      return false;
    std::printf("saved %zu %s to %s\n", values.size(),
                moments ? "state tensors" : "parameters", path.c_str());
    return true;
  };
  if ((!o.save.empty() && !save(o.save, false)) ||
      (!o.saveState.empty() && !save(o.saveState, true)))
    return fail(error);
  return 0;
}

/// The run's device memory against its plan: one line after the run, and a
/// warning with the stages when the run took more than planned.
void reportMemory(Instance &inst) {
  std::string error;
  if (!inst.sampleMemory(error))
    std::fprintf(stderr, "nova-run: warning: %s\n", error.c_str());
  const MemoryUse &m = inst.memoryUse();
  std::printf("peak device memory: measured %llu bytes, planned %llu bytes\n",
              (unsigned long long)m.measured, (unsigned long long)m.planned);
  if (m.measured > m.planned)
    std::fprintf(stderr,
                 "nova-run: warning: the run took %llu bytes more device "
                 "memory than planned (taken after the allocations: %llu, "
                 "after the first run: %llu, at the peak: %llu)\n",
                 (unsigned long long)(m.measured - m.planned),
                 (unsigned long long)m.afterAllocation,
                 (unsigned long long)m.afterFirstRun,
                 (unsigned long long)m.measured);
}

std::string mebibytes(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1 << 20));
  return buf;
}

/// --list-devices: each device opened as a run would open it.
int listDevices() {
  std::string error;
  const cuda::Driver *drv = cuda::Driver::get(error);
  if (!drv)
    return fail(error);
  int count = 0;
  if (drv->cuDeviceGetCount(&count) != cuda::CUDA_SUCCESS || count == 0)
    return fail("no CUDA device");
  for (int i = 0; i < count; ++i) {
    auto device = Device::open(i, error);
    size_t freeBytes = 0, total = 0;
    if (!device || !device->check(drv->cuMemGetInfo(&freeBytes, &total),
                                  "cuMemGetInfo", error))
      return fail("CUDA device #" + std::to_string(i) + ": " + error);
    std::printf("device %d: %s (%s, %d multiprocessors), %s of %s free\n", i,
                device->name().c_str(), device->arch().c_str(),
                device->multiprocessors(), mebibytes(freeBytes).c_str(),
                mebibytes(total).c_str());
  }
  return 0;
}

/// One run of the entry on inputs by name or random: outputs printed, saved
/// and compared, then --profile or --iterations.
int runEntry(Device &device, Instance &inst, const ExecutableDesc &exe,
             const RunOptions &o) {
  std::string error;
  const EntryDesc &e = inst.entry();
  const std::string &entry = e.name;
  std::map<std::string, HostTensor> named;
  if (!loadNamed(o.inputs, named, error))
    return fail(error);
  std::mt19937_64 rng(o.seed.value_or(0));
  std::vector<HostTensor> args;
  std::set<std::string> used;
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    const TensorDesc &t = e.inputs[i];
    HostTensor like(t.dtype, t.shape);
    auto it = named.find(t.name);
    if (it != named.end()) {
      args.push_back(it->second);
      used.insert(t.name);
    } else if (o.seed)
      args.push_back(randomTensor(like, o.intBound, rng));
    else
      return fail("no input named '" + t.name + "' (input #" +
                  std::to_string(i) +
                  "); give it in --inputs or use --random-inputs SEED");
    if (std::optional<int64_t> k =
            o.detectAnomaly ? firstNonFinite(args.back()) : std::nullopt)
      return fail("input '" + t.name + "' (input #" + std::to_string(i) +
                  ") is not finite: " + describeElement(args.back(), *k) +
                  " (--detect-anomaly)");
    if (!inst.setInput(i, args.back(), error))
      return fail(error);
  }
  warnUnusedInputs(named, used, "entry '" + entry + "'");
  if (!o.saveInputs.empty() &&
      !writeNamed(o.saveInputs, namesOf(e.inputs), args, error))
    return fail(error);
  if (!inst.run(error))
    return fail(error);
  // A failed check is reported first; the outputs (what the kernels left:
  // the optimizer's inputs when it skipped its update) are still printed,
  // saved and compared, and the run exits 1.
  error.clear();
  StatusReport report;
  if (!inst.readStatus(report, error))
    return fail(error);
  bool passed = checksPassed(inst, report, "", error);
  if (!error.empty())
    return fail(error);
  std::vector<HostTensor> results(e.outputs.size());
  for (size_t i = 0; i < results.size(); ++i)
    if (!inst.getOutput(i, results[i], error))
      return fail(error);
  std::vector<std::string> names = namesOf(e.outputs);
  if (o.detectAnomaly)
    for (size_t i = 0; i < results.size(); ++i)
      if (std::optional<int64_t> k = firstNonFinite(results[i]))
        return fail("output '" + names[i] +
                    "' is not finite: " + describeElement(results[i], *k) +
                    " (--detect-anomaly; the cuda backend cannot tell which "
                    "kernel made it)");
  if (o.print)
    for (size_t i = 0; i < results.size(); ++i)
      printTensor(names[i], results[i], o.printLimit);
  if (!o.output.empty() && !writeNamed(o.output, names, results, error))
    return fail(error);
  const KernelTable &table = KernelTable::global();
  std::printf("device %s (%s): %zu launches, %zu kernels loaded (%llu "
              "loads, %llu cache hits), arena %llu bytes\n",
              device.name().c_str(), device.arch().c_str(), e.launches.size(),
              table.size(), (unsigned long long)table.misses(),
              (unsigned long long)table.hits(),
              (unsigned long long)e.arenaSize);
  if (!o.compare.empty() &&
      !compareNamed(names, results, o.compare, o.rtol, o.atol,
                    o.normRtol))
    return 1;
  if (!passed)
    return 1;
  // With --profile, --iterations counts the profiled runs.
  if (o.profile)
    return profile(device, inst, exe, o);
  if (o.iterations > 0)
    return timeEntry(device, inst, o);
  return 0;
}
} // namespace

int runCuda(const RunOptions &o) {
  if (o.listDevices)
    return listDevices();
  std::string error;
  ExecutableDesc exe;
  if (!readExecutableFile(o.input, exe, error))
    return fail(error);
  if (o.describe) {
    std::fputs(describeExecutable(exe).c_str(), stdout);
    return 0;
  }
  std::string entry = o.entry;
  if (entry.empty()) {
    if (exe.entries.size() != 1)
      return fail(o.input + " has " + std::to_string(exe.entries.size()) +
                  " entries; choose one with --entry");
    entry = exe.entries.front().name;
  }
  if (!exe.findEntry(entry))
    return fail("no entry '" + entry + "' in " + o.input);
  if (o.checkGradients || o.f64 || o.noPoison)
    return fail("--check-gradients, --f64 and --no-poison belong to the ref "
                "backend");
  InstanceOptions options;
  options.useGraphs = o.graphs;
  options.poisonArena = o.poison;
  // Refused before the device is touched.
  const EntryDesc &desc = *exe.findEntry(entry);
  uint64_t planned = plannedInstanceBytes(exe, desc, options);
  if (o.memoryLimit && planned > *o.memoryLimit) {
    DeviceMemoryPlan plan = planDeviceMemory(exe, desc);
    return fail("entry '" + entry + "' needs " + std::to_string(planned) +
                " bytes (" + mebibytes(planned) +
                ") of device memory by its plan (arena " +
                std::to_string(plan.arena) + ", workspace " +
                std::to_string(plan.workspace) + ", status record " +
                std::to_string(plan.status) + ", CUDA graph " +
                std::to_string(graphDeviceBytes(desc, options.useGraphs)) +
                " bytes, each rounded up to 2 MiB pages), above "
                "--memory-limit " +
                std::to_string(*o.memoryLimit) + " bytes (" +
                mebibytes(*o.memoryLimit) + ")");
  }
  auto device = Device::open(o.device, error);
  if (!device)
    return fail(error);
  auto inst = Instance::create(*device, exe, entry, options, error);
  if (!inst)
    return fail(error);
  int status =
      o.train ? train(*device, *inst, o) : runEntry(*device, *inst, exe, o);
  if (inst->hasRun())
    reportMemory(*inst);
  return status;
}

} // namespace nova::run
