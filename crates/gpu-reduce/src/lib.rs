//! gpu-reduce (in progress)
