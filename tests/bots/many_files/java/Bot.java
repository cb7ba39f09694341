import java.io.BufferedReader;
import java.io.InputStreamReader;

/** A Limit Nim bot of two classes: this one speaks the protocol, Strategy chooses. */
public class Bot {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        Strategy position = null;
        int forced = 0;
        for (String line; (line = in.readLine()) != null; ) {
            line = line.trim();
            if (line.equals("Quit")) return;
            if (line.startsWith("Game ")) {
                position = Strategy.fromGameLine(line);
                continue;
            }
            if (line.startsWith("Opening ")) {
                forced = Integer.parseInt(line.split(" ")[1]);
                continue;
            }
            if (!line.equals("Start")) {
                position.apply(line);
                if (forced > 0) {
                    forced--;
                    continue;
                }
            }
            while (position.ourTurn()) {
                String move = position.choose();
                System.out.println(move);
                System.out.flush();
                position.apply(move);
            }
        }
    }
}
