#!/usr/bin/env perl
# A legal Vastuz bot in Perl: the protocol loop is here, the rules are the rules helper's
# (PROTOCOL.md section 9). Usage: perl starter.pl [HELPER COMMAND...] (default: vastuz rules)
use strict; use warnings; use IPC::Open2;
my @helper = @ARGV ? @ARGV : split ' ', ($ENV{VASTUZ_RULES} // 'vastuz rules');
open2(my $from, my $to, @helper) or die "cannot start the rules helper @helper";
sub ask {    # one command to the helper -> (ok, answer text)
    print $to "$_[0]\n"; $to->flush;
    my @lines; while (defined(my $l = <$from>)) { chomp $l; last if $l eq ''; push @lines, $l }
    my $ok = @lines && $lines[0] =~ s/^([=?]) ?// && $1 eq '=';
    return ($ok, join "\n", grep { $_ ne '' } @lines);
}
my @mine = qw(protocol_version name version known_command list_commands quit boardsize clear_board
    setup play genmove gensetup choose_color time_settings time_left final_score showboard);
my %relay = map { $_ => 1 } qw(boardsize clear_board setup play final_score showboard);
$| = 1;    # flush stdout after every answer
while (my $line = <STDIN>) {
    $line =~ s/#.*//s; $line =~ tr/\t/ /; $line =~ s/[\x00-\x1f\x7f]//g;
    my @w = split ' ', $line; next unless @w;
    my $id = $w[0] =~ /^\d+$/ ? shift @w : '';
    my ($cmd, @args) = (@w, '');
    my ($ok, $text) = (1, '');
    if    ($cmd eq 'protocol_version') { $text = '2' }
    elsif ($cmd eq 'name' || $cmd eq 'version') { $text = $cmd eq 'name' ? 'perl-starter' : '1' }
    elsif ($cmd eq 'known_command') { $text = (grep { $_ eq $args[0] } @mine) ? 'true' : 'false' }
    elsif ($cmd eq 'list_commands') { $text = join "\n", @mine }
    elsif ($relay{$cmd}) { ($ok, $text) = ask(join ' ', $cmd, @args) }
    elsif ($cmd eq 'genmove') { (undef, $text) = ask('random_turn'); ask("play $args[0] $text") }
    elsif ($cmd eq 'gensetup') {    # two different random points for the pie-rule stones
        my @p = split /\n/, (ask('legal_placements'))[1];
        my $b = splice @p, rand @p, 1; my $w = $p[rand @p];
        ask("setup $b $w"); $text = "$b $w";
    }
    elsif ($cmd eq 'choose_color') { $text = 'black' }
    elsif ($cmd !~ /^(quit|time_settings|time_left)$/) { ($ok, $text) = (0, 'unknown command') }
    print(($ok ? '=' : '?') . $id . ($text ne '' ? " $text" : '') . "\n\n");
    if ($cmd eq 'quit') { ask('quit'); last }
}
