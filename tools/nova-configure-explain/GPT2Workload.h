//===- GPT2Workload.h - a GPT-2 step's kernels as problems ------*- C++ -*-===//
//
// The kernels of one GPT-2 training step (forward, backward, AdamW) for a
// configuration, as the cost model's problems: what nova-configure-explain
// --gpt2 prices without compiling the model. A model-specific list, so it
// lives with the tool, not in the cost model.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_TOOLS_NOVA_CONFIGURE_EXPLAIN_GPT2WORKLOAD_H
#define NOVA_TOOLS_NOVA_CONFIGURE_EXPLAIN_GPT2WORKLOAD_H

#include "nova/CostModel/Configurator.h"

#include <vector>

namespace nova {

std::vector<Problem> gpt2TrainingProblems(int64_t layers, int64_t embd,
                                          int64_t heads, int64_t vocab,
                                          int64_t seq, int64_t batch,
                                          DType dtype);

} // namespace nova

#endif // NOVA_TOOLS_NOVA_CONFIGURE_EXPLAIN_GPT2WORKLOAD_H
