// Compiled on its own (CMakeLists.txt): <linux/tcp.h> has the tcp_info of
// the running kernel's ABI, glibc's <netinet/tcp.h> (which other units
// include) an older one of the same name.
#include "serve/socket_bytes.h"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace failmap::serve {

std::uint64_t tcp_bytes_received(int fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return 0;
  return info.tcpi_bytes_received;
}

}  // namespace failmap::serve
