"""Developer scripts: code generation (gen_proto), the compiled engine, the build backend, and what the tests
and benchmarks share (a throwaway PostgreSQL, the exact solver's reference)."""
