"""The bots' ladder: registered bots and the server's reference bots play sets of duplicate deals, rated."""
