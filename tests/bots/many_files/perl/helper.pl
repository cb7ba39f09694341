# The position's helpers, loaded by main.pl with `require`.
use strict;
use warnings;

sub parse_game_line {
    my ($line) = @_;
    my %fields = map { split /=/, $_, 2 } grep { /=/ } split / /, $line;
    my @piles = map { [split m{/}] } split /,/, ($fields{piles} // "10/9,10/9,10/9");
    return (\@piles, $fields{seat} // 0, $fields{players} // 2);
}

sub apply_move {
    my ($piles, $move) = @_;
    my ($pile, $count) = split / /, $move;
    my $stones = $piles->[$pile - 1][0] - $count;
    $piles->[$pile - 1] = [$stones, $stones < 2 * $count ? $stones : 2 * $count];
}

sub stones_left {
    my ($piles) = @_;
    return grep { $_->[0] > 0 } @$piles;
}

sub choose {  # one stone from the first pile that has any: always legal
    my ($piles) = @_;
    for my $i (0 .. $#$piles) {
        return ($i + 1) . " 1" if $piles->[$i][0] > 0;
    }
}

1;
