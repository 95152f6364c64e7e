"""JarvisHub: tools."""
