"""JarvisHub: graphs."""
