"""What a server does before and besides its visitors' scripts: the launcher (``serve``), the
warm start of the default database (``warm``), the server's own first visit (``warm_visit``) and
the one background worker (``prefetch``). No Streamlit caches here: these run before the runtime
exists, or beside it."""
