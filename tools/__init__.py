"""Tool families (canvas, generation, native, recovery, MCP): specs the manifest lists and the bridge runs."""
