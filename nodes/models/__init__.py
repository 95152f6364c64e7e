"""Chat models the propose node can use: the offline planner, or an OpenAI(-compatible) model."""
