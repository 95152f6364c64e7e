"""The web canvas: a page that draws the canvas live and lets a person steer the agent (``jarvishub ui``).

* :func:`create_app` builds the FastAPI app over a :class:`~jarvishub.runtime.Runtime`;
* :func:`serve` runs it for a project folder until interrupted;
* :class:`BackgroundServer` runs an app in a thread (tests, notebooks);
* :func:`layout_pending` places the canvas's unplaced nodes through the bridge.
"""

from jarvishub.web.app import create_app
from jarvishub.web.layout import layout_pending, plan_layout
from jarvishub.web.server import BackgroundServer, serve

__all__ = ["BackgroundServer", "create_app", "layout_pending", "plan_layout", "serve"]
