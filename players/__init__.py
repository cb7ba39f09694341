"""The bundled bots, and the strategies they share (`players.strategies`)."""
