"""The LangGraph nodes of the turn loop, and the protocol bridge they call: manifest, grants, actions, validation."""
