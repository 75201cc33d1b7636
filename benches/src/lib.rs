//! Shared pieces of the workspace benchmarks and report.
