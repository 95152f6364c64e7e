"""The web canvas: a page that draws the canvas live and lets a person steer the agent (``jarvishub ui``).

* :func:`create_app` builds the FastAPI app over a :class:`~jarvishub.runtime.Runtime`;
* :func:`serve` runs it for a project folder until interrupted;
* :class:`BackgroundServer` runs an app in a thread (tests, notebooks).

The Graph lens lays the canvas out in the page (dagre); the server stores only the positions a person gives
by dragging (``move_node``, pinned).
"""

from jarvishub.web.app import create_app
from jarvishub.web.server import BackgroundServer, serve

__all__ = ["BackgroundServer", "create_app", "serve"]
