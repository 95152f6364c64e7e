"""The parts of the canvas store on the ``neo4j`` driver, one per concern; :mod:`store.neo4j` assembles them."""
