//! gpu-conv1d (in progress)
