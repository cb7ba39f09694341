#!/usr/bin/env perl
# A Limit Nim bot of two files: this one speaks the protocol, helper.pl (beside it) chooses.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
require "helper.pl";

$| = 1;  # flush every move
my ($piles, $seat, $seats, $moves, $forced) = (undef, 0, 2, 0, 0);
while (my $line = <STDIN>) {
    $line =~ s/\s+$//;
    last if $line eq "Quit";
    if ($line =~ /^Game /) {
        ($piles, $seat, $seats) = parse_game_line($line);
        next;
    }
    if ($line =~ /^Opening (\d+)/) {
        $forced = $1;
        next;
    }
    if ($line ne "Start") {
        apply_move($piles, $line);
        $moves++;
        if ($forced) {
            $forced--;
            next;
        }
    }
    while (stones_left($piles) && $moves % $seats == $seat) {
        my $move = choose($piles);
        print "$move\n";
        apply_move($piles, $move);
        $moves++;
    }
}
