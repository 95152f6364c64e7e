"""JarvisHub: jarvishub."""
