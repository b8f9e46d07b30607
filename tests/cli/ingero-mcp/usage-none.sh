# No trace given: a usage error naming what is needed.
ingero-mcp
