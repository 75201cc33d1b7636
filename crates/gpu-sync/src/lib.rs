//! gpu-sync (in progress)
