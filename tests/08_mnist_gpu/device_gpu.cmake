# 08-device_gpu: `train_mnist` on a tiny run. Passes when
#   * there is no usable GPU: the output says "train_mnist needs a CUDA GPU", names lesson 02's
#     program for the CPU, and the exit is non-zero, or
#   * there is one: the run exits 0 after one epoch with a test accuracy line.
# usage: cmake -DPROGRAM=<train_mnist> -DOUT_DIR=<dir> -P device_gpu.cmake
execute_process(COMMAND ${PROGRAM} --epochs 1 --train-limit 512 --test-limit 256 --out ${OUT_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
message("${all}")
if(all MATCHES "train_mnist needs a CUDA GPU, but none is usable.*lesson02_host_training")
  if(rc EQUAL 0)
    message(FATAL_ERROR "said there is no GPU but exited with 0")
  endif()
  message("no GPU: the message and exit code ${rc}, as required")
elseif(all MATCHES "no mnist data set in")
  message("SKIPPED: no mnist data set for the tiny GPU run (run data/fetch_mnist.sh)")
elseif(rc EQUAL 0 AND all MATCHES "epoch 1/1 +train loss [0-9.]+ .*test acc [0-9.]+ %")
  message("GPU: the tiny run finished")
else()
  message(FATAL_ERROR "expected either the no-GPU message with a non-zero exit or a finished 1-epoch run (exit ${rc})")
endif()
