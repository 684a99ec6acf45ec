#pragma once
// NCCL_CHECK(call): an NCCL call whose failure becomes a course::Error naming the call, where it is,
// NCCL's reason and NCCL's last message (e.g. "Duplicate GPU detected").
#include <nccl.h>

namespace framework {

void nccl_check(ncclResult_t result, const char* call, const char* file, int line);

}  // namespace framework

#define NCCL_CHECK(call) ::framework::nccl_check((call), #call, __FILE__, __LINE__)
