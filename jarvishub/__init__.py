"""The JarvisHub application: settings, project folders, the runtime, the CLI and the web canvas."""
