"""JarvisHub: skills."""
