//! The board as data: 28 stone circles on an 8 × 8 grid, 73 sites, their paths
//! and the wrap-around (the digest's \[ruling\]).

use super::action::{Circle, Dir, Shape, Site};

/// Number of sites.
pub const SITES: usize = 73;
/// Number of circles.
pub const CIRCLES: usize = 28;

/// The (x, y) lattice coordinates of a site, 0 ≤ x, y ≤ 8, y = 0 at the top.
pub fn coords(site: Site) -> (u8, u8) {
    let _ = site;
    todo!("helper")
}

/// The site at (x, y), `None` off the board or at an octagon's centre.
pub fn site_at(x: u8, y: u8) -> Option<Site> {
    let _ = (x, y);
    todo!("helper")
}

/// A circle's shape.
pub fn shape(circle: Circle) -> Shape {
    let _ = circle;
    todo!("helper")
}

/// A circle's sites, in increasing order.
pub fn circle_sites(circle: Circle) -> &'static [Site] {
    let _ = circle;
    todo!("helper")
}

/// The circles a site belongs to (1 to 3), in letter order.
pub fn circles_of(site: Site) -> &'static [Circle] {
    let _ = site;
    todo!("helper")
}

/// The site one step from `site` in `dir` along a path (wrap-around included),
/// `None` where there is no path.
pub fn neighbour(site: Site, dir: Dir) -> Option<Site> {
    let _ = (site, dir);
    todo!("helper")
}
