"""The canvas: typed models, the CanvasStore interface and its Neo4j-driver implementation, engines, artifacts, trajectories, memory."""
