/** The position and the choice of a move, in a class file of its own. */
public class Strategy {
    private final int[][] piles;  // {stones, limit} per pile
    private final int seat, seats;
    private int moves = 0;

    private Strategy(int[][] piles, int seat, int seats) {
        this.piles = piles;
        this.seat = seat;
        this.seats = seats;
    }

    static Strategy fromGameLine(String line) {
        String piles = "10/9,10/9,10/9";
        int seat = 0, seats = 2;
        for (String word : line.split(" ")) {
            if (word.startsWith("piles=")) piles = word.substring(6);
            if (word.startsWith("seat=")) seat = Integer.parseInt(word.substring(5));
            if (word.startsWith("players=")) seats = Integer.parseInt(word.substring(8));
        }
        String[] parts = piles.split(",");
        int[][] found = new int[parts.length][];
        for (int i = 0; i < parts.length; i++) {
            String[] pile = parts[i].split("/");
            found[i] = new int[] {Integer.parseInt(pile[0]), Integer.parseInt(pile[1])};
        }
        return new Strategy(found, seat, seats);
    }

    void apply(String move) {
        String[] words = move.split(" ");
        int pile = Integer.parseInt(words[0]) - 1, count = Integer.parseInt(words[1]);
        int stones = piles[pile][0] - count;
        piles[pile] = new int[] {stones, Math.min(2 * count, stones)};
        moves++;
    }

    boolean ourTurn() {
        for (int[] pile : piles) {
            if (pile[0] > 0) return moves % seats == seat;
        }
        return false;
    }

    String choose() {
        for (int i = 0; i < piles.length; i++) {
            if (piles[i][0] > 0) return (i + 1) + " 1";
        }
        throw new IllegalStateException("no stones left");
    }
}
