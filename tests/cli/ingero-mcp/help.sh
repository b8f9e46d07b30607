# --help goes to stdout with the MCP client configuration, exit 0.
ingero-mcp --help >help.txt
grep -c '^USAGE$\|^OPTIONS$\|^EXAMPLES$\|^EXIT STATUS$' help.txt
grep -F '{"mcpServers":{"ingero":{"command":"ingero-mcp","args":["--db","run.db"]}}}' help.txt | tr -d ' '
