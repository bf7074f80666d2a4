"""``outpost-cli``: the command-line contract of docs/cli.md."""
