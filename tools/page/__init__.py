"""Web page operations as tools: each edit of a page is a new version of it (see ``tools.page.tools``)."""

from tools.page.tools import PAGE_TOOLS, page_of, page_scope

__all__ = ["PAGE_TOOLS", "page_of", "page_scope"]
