"""JarvisHub: nodes."""
