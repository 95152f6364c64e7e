"""Skills: reusable creative procedures as LangGraph subgraphs that act only through the bridge."""
