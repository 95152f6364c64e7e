"""JarvisHub: store."""
