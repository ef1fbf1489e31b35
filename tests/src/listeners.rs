//! The addresses a TCP port is listened on, read from `/proc/net/tcp` and
//! `/proc/net/tcp6`: what a server bound, where a connect to 127.0.0.1
//! would also reach a server bound to every interface.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The socket state `LISTEN` in `/proc/net/tcp*`.
const LISTEN: &str = "0A";

/// The local addresses of the sockets listening on `port`.
pub fn listening_addresses(port: u16) -> Vec<IpAddr> {
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|table| std::fs::read_to_string(table).ok())
        .flat_map(|text| parse_table(&text, port))
        .collect()
}

/// The listening sockets of one `/proc/net/tcp*` table on `port`.
fn parse_table(text: &str, port: u16) -> Vec<IpAddr> {
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let local = fields.nth(1)?;
            let state = fields.nth(1)?;
            let (address, local_port) = local.split_once(':')?;
            let listening = state == LISTEN && u16::from_str_radix(local_port, 16).ok()? == port;
            listening.then(|| parse_address(address)).flatten()
        })
        .collect()
}

/// An address as the kernel prints it: the bytes in network order, each
/// 32-bit word printed in host (little-endian) order.
fn parse_address(hex: &str) -> Option<IpAddr> {
    let words: Vec<u32> = (0..hex.len() / 8)
        .map(|i| u32::from_str_radix(hex.get(i * 8..i * 8 + 8)?, 16).ok())
        .collect::<Option<_>>()?;
    let bytes: Vec<u8> = words.iter().flat_map(|word| word.to_le_bytes()).collect();
    match bytes.len() {
        4 => Some(IpAddr::V4(Ipv4Addr::new(
            bytes[0], bytes[1], bytes[2], bytes[3],
        ))),
        16 => {
            let octets: [u8; 16] = bytes.try_into().ok()?;
            Some(IpAddr::V6(Ipv6Addr::from(octets)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;

    use super::*;

    #[test]
    fn reads_the_kernels_table() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue\n\
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000\n\
   1: 00000000:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000\n\
   2: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000\n";
        assert_eq!(
            parse_table(table, 0x1F90),
            vec![IpAddr::V4(Ipv4Addr::LOCALHOST)]
        );
        assert_eq!(
            parse_table(table, 0x1F91),
            vec![IpAddr::V4(Ipv4Addr::UNSPECIFIED)]
        );
        assert_eq!(
            parse_address("00000000000000000000000001000000"),
            Some(IpAddr::V6(Ipv6Addr::LOCALHOST))
        );
    }

    #[test]
    fn finds_a_listener_of_this_process_where_it_bound() {
        let loopback = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let port = loopback.local_addr().unwrap().port();
        assert_eq!(
            listening_addresses(port),
            vec![IpAddr::V4(Ipv4Addr::LOCALHOST)]
        );
        let everywhere = TcpListener::bind((Ipv4Addr::UNSPECIFIED, 0)).unwrap();
        let port = everywhere.local_addr().unwrap().port();
        assert_eq!(
            listening_addresses(port),
            vec![IpAddr::V4(Ipv4Addr::UNSPECIFIED)]
        );
    }
}
