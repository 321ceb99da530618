// A count the kernel keeps of a TCP connection, for the watchdog of
// `failmap serve` (serve/service.h).
#pragma once

#include <cstdint>

namespace failmap::serve {

/// Bytes the kernel has received on TCP socket `fd` (TCP_INFO's
/// tcpi_bytes_received, Linux 4.1+); 0 when it cannot say.
std::uint64_t tcp_bytes_received(int fd);

}  // namespace failmap::serve
