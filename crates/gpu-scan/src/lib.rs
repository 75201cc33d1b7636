//! gpu-scan (in progress)
