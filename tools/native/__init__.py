"""JarvisHub native tools: workspace files, Python runs, page renders and slide decks, on this machine."""
