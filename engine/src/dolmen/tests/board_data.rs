//! The board as data (\[ruling\]): sites, circles, paths and wrap-around.

use super::*;

#[test]
fn board_has_28_circles_of_the_digests_shapes() {
    let letters = |list: &str, shape: Shape| {
        for l in list.chars().filter(|l| !l.is_whitespace()) {
            assert_eq!(board::shape(c(l)), shape, "circle {l}");
            assert_eq!(board::circle_sites(c(l)).len(), shape.sites(), "circle {l}");
        }
        list.split_whitespace().count()
    };
    assert_eq!(letters("B C I J T V W X", Shape::Octagon), 8);
    assert_eq!(letters("A D E G H K L M N O P Q", Shape::Hexagon), 12);
    assert_eq!(letters("F R S U Y Z a b", Shape::Square), 8);
    assert_eq!(board::circles().count(), CIRCLES);
    assert_eq!(c('a'), Circle(26));
    assert_eq!(Circle(27).letter(), 'b');
}

#[test]
fn board_has_73_sites_numbered_row_by_row_without_octagon_centres() {
    assert_eq!(board::sites().count(), SITES);
    let centres = [
        (2, 1),
        (4, 1),
        (3, 3),
        (5, 3),
        (3, 6),
        (7, 6),
        (1, 7),
        (5, 7),
    ];
    let mut n = 0;
    for y in 0..9 {
        for x in 0..9 {
            if centres.contains(&(x, y)) {
                assert_eq!(board::site_at(x, y), None, "({x},{y}) is an octagon centre");
            } else {
                assert_eq!(board::site_at(x, y), Some(Site(n)));
                assert_eq!(board::coords(Site(n)), (x, y));
                n += 1;
            }
        }
    }
    assert_eq!(n as usize, SITES);
    assert_eq!(board::site_at(9, 0), None);
    assert_eq!(s(8, 8), Site(72));
    assert_eq!(s(0, 1), Site(9));
    assert_eq!(s(0, 2), Site(16));
}

#[test]
fn sites_belong_to_one_two_or_three_circles() {
    let mut by_count = [0; 4];
    for site in board::sites() {
        let cs = board::circles_of(site);
        by_count[cs.len()] += 1;
        assert!(cs.windows(2).all(|w| w[0] < w[1]), "letter order");
        for &circle in cs {
            assert!(board::circle_sites(circle).contains(&site));
        }
    }
    assert_eq!(by_count, [0, 15, 21, 37]);
    for circle in board::circles() {
        let sites = board::circle_sites(circle);
        assert!(sites.windows(2).all(|w| w[0] < w[1]), "increasing");
        for &site in sites {
            assert!(board::circles_of(site).contains(&circle));
        }
    }
    // Spot checks.
    let a: Vec<u8> = board::circle_sites(c('A')).iter().map(|s| s.0).collect();
    assert_eq!(a, [0, 1, 9, 10, 16, 17]);
    let f: Vec<Site> = board::circle_sites(c('F')).to_vec();
    assert_eq!(f, [s(5, 1), s(6, 1), s(5, 2), s(6, 2)]);
    assert_eq!(board::circles_of(s(0, 0)), [c('A')]);
    assert_eq!(board::circles_of(s(2, 2)), [c('B'), c('H'), c('I')]);
    assert_eq!(board::circles_of(s(8, 5)), [c('R'), c('V')]);
    assert_eq!(board::circles_of(s(8, 6)), [c('V')]);
    assert_eq!(board::circles_of(s(7, 7)), [c('V'), c('a'), c('b')]);
}

#[test]
fn paths_follow_circle_boundaries_not_their_insides() {
    // Inside hexagon A (cells (0,0) and (0,1)): the segment (0,1)–(1,1).
    assert_eq!(board::neighbour(s(0, 1), Dir::East), None);
    assert_eq!(board::neighbour(s(1, 1), Dir::West), None);
    // Its boundary: (1,0)–(1,1) is a path.
    assert_eq!(board::neighbour(s(1, 1), Dir::North), Some(s(1, 0)));
    // Inside hexagon E (cells (7,0) and (7,1)): (7,1)–(8,1).
    assert_eq!(board::neighbour(s(7, 1), Dir::East), None);
    // Inside hexagon O (cells (1,4), (2,4)): (2,4)–(2,5).
    assert_eq!(board::neighbour(s(2, 4), Dir::South), None);
    // Towards an octagon's centre there is no path (and no site).
    assert_eq!(board::neighbour(s(2, 0), Dir::South), None);
    assert_eq!(board::neighbour(s(3, 1), Dir::East), None);
    // Board edges are paths.
    assert_eq!(board::neighbour(s(0, 3), Dir::South), Some(s(0, 4)));
    assert_eq!(board::neighbour(s(4, 8), Dir::East), Some(s(5, 8)));
    // Every path goes both ways.
    let back = |d: Dir| match d {
        Dir::North => Dir::South,
        Dir::South => Dir::North,
        Dir::East => Dir::West,
        Dir::West => Dir::East,
        Dir::Diagonal => Dir::Diagonal,
    };
    for site in board::sites() {
        for d in Dir::ALL {
            if let Some(n) = board::neighbour(site, d) {
                assert_ne!(n, site);
                assert_eq!(board::neighbour(n, back(d)), Some(site), "{site} {d:?}");
            }
        }
    }
}

#[test]
fn wrap_around_and_corner_diagonals() {
    // (8, y) and (0, y) are different sites, one step apart.
    assert_eq!(board::neighbour(s(8, 4), Dir::East), Some(s(0, 4)));
    assert_eq!(board::neighbour(s(0, 4), Dir::West), Some(s(8, 4)));
    assert_eq!(board::neighbour(s(0, 4), Dir::East), Some(s(1, 4)));
    assert_eq!(board::neighbour(s(8, 4), Dir::West), Some(s(7, 4)));
    assert_eq!(board::neighbour(s(3, 0), Dir::North), Some(s(3, 8)));
    assert_eq!(board::neighbour(s(3, 8), Dir::South), Some(s(3, 0)));
    // Corners: both wraps and the diagonal.
    assert_eq!(board::neighbour(s(0, 0), Dir::West), Some(s(8, 0)));
    assert_eq!(board::neighbour(s(0, 0), Dir::North), Some(s(0, 8)));
    assert_eq!(board::neighbour(s(0, 0), Dir::Diagonal), Some(s(8, 8)));
    assert_eq!(board::neighbour(s(8, 8), Dir::Diagonal), Some(s(0, 0)));
    assert_eq!(board::neighbour(s(8, 0), Dir::Diagonal), Some(s(0, 8)));
    assert_eq!(board::neighbour(s(0, 8), Dir::Diagonal), Some(s(8, 0)));
    // The diagonal exists only at corners.
    let diagonals = board::sites()
        .filter(|&x| board::neighbour(x, Dir::Diagonal).is_some())
        .count();
    assert_eq!(diagonals, 4);
    assert!(board::is_corner(s(8, 0)) && !board::is_corner(s(4, 0)));
}
