# A file that is not a database fails at start, not at the first call.
echo 'hello' >notes.txt
ingero-mcp --db notes.txt </dev/null
ingero-mcp --db missing.db </dev/null
