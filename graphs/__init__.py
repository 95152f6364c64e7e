"""LangGraph graphs: the supervisor turn loop, subagent exploration, checkpointer wiring, the server factory."""
