// A legal Vastuz bot in Rust (std only): the protocol loop is here, the rules are the rules
// helper's (PROTOCOL.md section 9). Build: rustc -O starter.rs; run: ./starter [HELPER COMMAND...]
use std::{io::{BufRead, BufReader, Write}, process::{ChildStdin, ChildStdout, Command, Stdio}};
struct Helper { to: ChildStdin, from: BufReader<ChildStdout> }
impl Helper {
    fn ask(&mut self, command: &str) -> (bool, String) { // one command -> (ok, answer text)
        writeln!(self.to, "{}", command).and_then(|_| self.to.flush()).expect("the rules helper went away");
        let mut text = String::new(); // read up to the empty line that ends the answer
        while self.from.read_line(&mut text).map_or(false, |n| n > 0) && !text.ends_with("\n\n") {}
        (text.starts_with('='), text.get(1..).unwrap_or("").trim().to_string())
    }
}
fn main() { // the helper's command: the arguments, else $VASTUZ_RULES, else `vastuz rules`
    let mut argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.is_empty() { argv = std::env::var("VASTUZ_RULES").unwrap_or("vastuz rules".into()).split_whitespace().map(String::from).collect(); }
    let mut child = Command::new(&argv[0]).args(&argv[1..]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("cannot start the rules helper");
    let mut h = Helper { to: child.stdin.take().unwrap(), from: BufReader::new(child.stdout.take().unwrap()) };
    let mine = "protocol_version name version known_command list_commands quit boardsize clear_board setup play genmove gensetup choose_color time_settings time_left final_score showboard";
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let clean: String = line.split('#').next().unwrap_or("").replace('\t', " ").chars().filter(|c| !c.is_control()).collect();
        let mut words: Vec<&str> = clean.split_whitespace().collect();
        let id = if words.first().map_or(false, |w| w.chars().all(|c| c.is_ascii_digit())) { words.remove(0) } else { "" };
        if words.is_empty() && id.is_empty() { continue; }
        let (cmd, arg) = (words.first().copied().unwrap_or(""), words.get(1).copied().unwrap_or(""));
        let (ok, text) = match cmd {
            "protocol_version" => (true, "2".to_string()),
            "name" | "version" => (true, if cmd == "name" { "rust-starter" } else { "1" }.to_string()),
            "known_command" => (true, mine.split(' ').any(|c| c == arg).to_string()),
            "list_commands" => (true, mine.replace(' ', "\n")),
            "boardsize" | "clear_board" | "setup" | "play" | "final_score" | "showboard" => h.ask(&words.join(" ")),
            "genmove" => { let turn = h.ask("random_turn").1; h.ask(&format!("play {} {}", arg, turn)); (true, turn) }
            "gensetup" => { // two different random points (a random turn on the empty board is one)
                let (b, mut w) = (h.ask("random_turn").1, h.ask("random_turn").1);
                while w == b { w = h.ask("random_turn").1; }
                (h.ask(&format!("setup {} {}", b, w)).0, format!("{} {}", b, w)) }
            "choose_color" => (true, "black".to_string()),
            "quit" | "time_settings" | "time_left" => (true, String::new()),
            _ => (false, "unknown command".to_string()),
        };
        print!("{}{}{}{}\n\n", if ok { '=' } else { '?' }, id, if text.is_empty() { "" } else { " " }, text);
        std::io::stdout().flush().unwrap(); // every answer, at once
        if cmd == "quit" { h.ask("quit"); break; }
    }
}
