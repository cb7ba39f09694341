"""arbiter: a CodeCup-style bot-versus-bot tournament arbiter."""
