// A legal Vastuz bot in Java (JDK only): the protocol loop is here, the rules are the rules
// helper's (PROTOCOL.md section 9). Run: java Starter.java [HELPER COMMAND...] (Java 11+)
import java.io.*;
import java.util.*;

public class Starter {
    static BufferedReader from;
    static PrintStream to;
    static String[] ask(String command) throws IOException { // one command -> {"=" or "?", text}
        to.println(command); to.flush();
        StringBuilder text = new StringBuilder();
        for (String l = from.readLine(); l != null && !l.isEmpty(); l = from.readLine()) text.append(l).append('\n');
        String t = text.toString();
        return new String[] {t.isEmpty() ? "?" : t.substring(0, 1), t.isEmpty() ? "" : t.substring(1).trim()};
    }
    public static void main(String[] args) throws IOException {
        List<String> helper = args.length > 0 ? List.of(args)
            : List.of(Objects.requireNonNullElse(System.getenv("VASTUZ_RULES"), "vastuz rules").split(" "));
        Process p = new ProcessBuilder(helper).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        from = new BufferedReader(new InputStreamReader(p.getInputStream()));
        to = new PrintStream(p.getOutputStream());
        List<String> mine = List.of("protocol_version", "name", "version", "known_command", "list_commands", "quit",
            "boardsize", "clear_board", "setup", "play", "genmove", "gensetup", "choose_color", "time_settings",
            "time_left", "final_score", "showboard");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            List<String> w = new ArrayList<>(List.of(line.split("#")[0].replaceAll("[\\p{Cntrl}&&[^\t]]", "").trim().split("\\s+")));
            w.removeIf(String::isEmpty);
            String id = !w.isEmpty() && w.get(0).matches("\\d+") ? w.remove(0) : "";
            if (w.isEmpty() && id.isEmpty()) continue;
            String cmd = w.isEmpty() ? "" : w.get(0), arg = w.size() > 1 ? w.get(1) : "";
            String[] a = {"=", ""};
            switch (cmd) {
                case "protocol_version": a[1] = "2"; break;
                case "name": case "version": a[1] = cmd.equals("name") ? "java-starter" : "1"; break;
                case "known_command": a[1] = String.valueOf(mine.contains(arg)); break;
                case "list_commands": a[1] = String.join("\n", mine); break;
                case "boardsize": case "clear_board": case "setup": case "play": case "final_score": case "showboard":
                    a = ask(String.join(" ", w)); break;
                case "genmove": a[1] = ask("random_turn")[1]; ask("play " + arg + " " + a[1]); break;
                case "gensetup": // two different random points (a random turn on the empty board is one)
                    String b = ask("random_turn")[1], x = ask("random_turn")[1];
                    while (x.equals(b)) x = ask("random_turn")[1];
                    a = new String[] {ask("setup " + b + " " + x)[0], b + " " + x}; break;
                case "choose_color": a[1] = "black"; break;
                case "quit": case "time_settings": case "time_left": break;
                default: a = new String[] {"?", "unknown command"};
            }
            System.out.print(a[0] + id + (a[1].isEmpty() ? "" : " " + a[1]) + "\n\n"); System.out.flush(); // at once
            if (cmd.equals("quit")) { ask("quit"); return; }
        }
    }
}
