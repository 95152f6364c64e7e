"""The canvas: typed models, the CanvasStore interface and its Neo4j-driver implementation, engines, artifacts, trajectories, memory."""

from store._driver_deps import skip_driver_dataframe_deps

skip_driver_dataframe_deps()
