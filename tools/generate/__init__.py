"""JarvisHub generation family: media providers (one interface per medium), a signature cache and the tools.

``base`` holds the interfaces and request models, one module per provider
implements them (``offline_*`` by default, ``openai_*`` when configured),
``service`` puts a provider behind the signature ``cache`` and ``tools`` turns
the service into the tool specs the manifest lists.
"""
