# stdin carries the protocol, so the log cannot come from it.
ingero-mcp -
