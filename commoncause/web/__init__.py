"""The browser front of the play session: ``commoncause serve`` (see ``app``)."""
