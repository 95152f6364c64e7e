"""A user's path with configured models and media providers, against loopback servers that speak their APIs."""
