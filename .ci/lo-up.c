// lo-up brings the loopback interface up in the current network
// namespace: CI runs the Beam tests in a namespace of their own (unshare
// -rn), where lo starts down, and a fresh machine need not have iproute2.
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int main(void) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) {
    perror("lo-up: socket");
    return 1;
  }
  struct ifreq r;
  memset(&r, 0, sizeof r);
  strncpy(r.ifr_name, "lo", IFNAMSIZ - 1);
  if (ioctl(fd, SIOCGIFFLAGS, &r) < 0) {
    perror("lo-up: SIOCGIFFLAGS");
    return 1;
  }
  r.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (ioctl(fd, SIOCSIFFLAGS, &r) < 0) {
    perror("lo-up: SIOCSIFFLAGS");
    return 1;
  }
  close(fd);
  return 0;
}
