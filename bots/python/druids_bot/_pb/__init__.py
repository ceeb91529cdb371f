"""Generated gRPC stubs of the druids contract (package ``druids.v1``).

The modules ``druids_pb2``, ``meduris_pb2``, ``dolmen_pb2`` (messages, with
``.pyi`` type stubs) and ``druids_pb2_grpc`` (the ``DruidsServiceStub``) are
written here at build time from ``proto/druids/v1/*.proto`` by the package's
build hook (``setup.py``). They are not in the source tree: install the package
(``pip install ./bots/python``) to get them.
"""
