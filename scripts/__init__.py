"""Developer scripts: code generation (gen_proto), the compiled engine, the build backend."""
