"""The position and the choice of a move, imported by __main__.py from the same folder."""


class Position:
    def __init__(self, piles, seat, seats):
        self.piles = piles  # [stones, limit] per pile
        self.seat = seat
        self.seats = seats
        self.moves = 0

    @classmethod
    def from_game_line(cls, line):
        fields = dict(word.split("=", 1) for word in line.split()[2:] if "=" in word)
        piles = [[int(n) for n in pile.split("/")] for pile in fields.get("piles", "10/9,10/9,10/9").split(",")]
        return cls(piles, int(fields.get("seat", 0)), int(fields.get("players", 2)))

    def apply(self, move):
        pile, count = (int(n) for n in move.split())
        stones = self.piles[pile - 1][0] - count
        self.piles[pile - 1] = [stones, min(2 * count, stones)]
        self.moves += 1

    def our_turn(self):
        return any(stones for stones, _ in self.piles) and self.moves % self.seats == self.seat

    def choose(self):
        """One stone from the first pile that has any: always legal."""
        pile = next(index for index, (stones, _) in enumerate(self.piles) if stones)
        return f"{pile + 1} 1"
