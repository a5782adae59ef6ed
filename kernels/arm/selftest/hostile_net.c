/*
 * A hostile guest that tries to reach the host over the network: it drives the MPS3 AN547's SMSC LAN9118 Ethernet
 * controller to send one UDP datagram to 10.0.2.2:port. On a QEMU user-mode (slirp) network, 10.0.2.2 is the host's
 * alias and the datagram would arrive on the host's 127.0.0.1:port. pqhelium starts QEMU without any network
 * backend, so the frame must go nowhere. On unicorn (the M7 image) nothing is mapped at the controller's address:
 * the first register access must fault.
 *
 * The driver follows the LAN9118 data sheet (32-bit bus mode): soft reset, enable the transmitter, then push the
 * frame through the TX data FIFO as one segment (command A, command B, data words).
 */
#include <stdint.h>

#define LAN9118_BASE 0x41400000u /* AN547 "ethernet" expansion port (QEMU `info mtree`: lan9118-mmio) */
#define LAN_REG(offset) (*(volatile uint32_t *)(LAN9118_BASE + (offset)))
#define TX_DATA_FIFO LAN_REG(0x20u)
#define ID_REV LAN_REG(0x50u)
#define TX_CFG LAN_REG(0x70u)
#define HW_CFG LAN_REG(0x74u)
#define TX_FIFO_INF LAN_REG(0x80u)
#define MAC_CSR_CMD LAN_REG(0xA4u)
#define MAC_CSR_DATA LAN_REG(0xA8u)

#define ID_REV_CHIP_ID 0x0118u
#define HW_CFG_SRST 0x1u
#define TX_CFG_TX_ON 0x2u
#define MAC_CSR_BUSY 0x80000000u
#define MAC_CR 1u
#define MAC_CR_FDPX 0x00100000u
#define MAC_CR_TXEN 0x00000008u
#define TX_CMD_A_FIRST_SEGMENT 0x2000u
#define TX_CMD_A_LAST_SEGMENT 0x1000u
#define TX_CMD_B_TAG 0x5051u /* returned in the TX status word; any value */
/* A bounded wait: a hostile guest must end, even if the device never answers. */
#define POLL_LIMIT 100000u

#define ETH_HEADER 14u
#define IP_HEADER 20u
#define UDP_HEADER 8u
static const char payload[] = "pqhelium guest escaped to the host network";
#define PAYLOAD_LEN (sizeof payload - 1u)
#define FRAME_LEN (ETH_HEADER + IP_HEADER + UDP_HEADER + PAYLOAD_LEN)
_Static_assert(FRAME_LEN % 4u == 0, "the frame is pushed as whole words: no padding to clear");

static int wait_clear(volatile uint32_t *reg, uint32_t bits)
{
    for (uint32_t i = 0; i < POLL_LIMIT; i++)
        if ((*reg & bits) == 0)
            return 1;
    return 0;
}

static void put16(uint8_t *at, uint32_t value)
{
    at[0] = (uint8_t)(value >> 8);
    at[1] = (uint8_t)value;
}

static void put_ipv4(uint8_t *at, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    at[0] = (uint8_t)a;
    at[1] = (uint8_t)b;
    at[2] = (uint8_t)c;
    at[3] = (uint8_t)d;
}

/* Ethernet II + IPv4 + UDP from the guest's slirp address 10.0.2.15 to the host alias 10.0.2.2. */
static void build_frame(uint8_t *frame, uint32_t port)
{
    static const uint8_t slirp_host_mac[6] = {0x52, 0x55, 0x0a, 0x00, 0x02, 0x02};
    static const uint8_t board_mac[6] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56}; /* QEMU's default NIC address */
    for (uint32_t i = 0; i < 6; i++) {
        frame[i] = slirp_host_mac[i];
        frame[6 + i] = board_mac[i];
    }
    put16(frame + 12, 0x0800u); /* IPv4 */

    uint8_t *ip = frame + ETH_HEADER;
    ip[0] = 0x45; /* version 4, 5-word header */
    ip[1] = 0;
    put16(ip + 2, IP_HEADER + UDP_HEADER + PAYLOAD_LEN);
    put16(ip + 4, 1);       /* identification */
    put16(ip + 6, 0x4000u); /* don't fragment */
    ip[8] = 64;             /* TTL */
    ip[9] = 17;             /* UDP */
    put16(ip + 10, 0);
    put_ipv4(ip + 12, 10, 0, 2, 15);
    put_ipv4(ip + 16, 10, 0, 2, 2);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < IP_HEADER; i += 2)
        sum += ((uint32_t)ip[i] << 8) | ip[i + 1];
    while (sum >> 16)
        sum = (sum & 0xFFFFu) + (sum >> 16);
    put16(ip + 10, ~sum & 0xFFFFu);

    uint8_t *udp = ip + IP_HEADER;
    put16(udp, 40000u); /* source port */
    put16(udp + 2, port);
    put16(udp + 4, UDP_HEADER + PAYLOAD_LEN);
    put16(udp + 6, 0); /* no checksum: allowed for UDP over IPv4 */
    for (uint32_t i = 0; i < PAYLOAD_LEN; i++)
        udp[UDP_HEADER + i] = (uint8_t)payload[i];
}

/* Sends one UDP datagram to 10.0.2.2:port. Returns how many frames the controller reports transmitted (its TX
 * status FIFO level: 1 when the driver worked), or 0 if no LAN9118 answered. */
uint32_t pqh_selftest_hostile_net_send_udp(uint32_t port)
{
    if ((ID_REV >> 16) != ID_REV_CHIP_ID)
        return 0;
    HW_CFG = HW_CFG_SRST;
    if (!wait_clear(&HW_CFG, HW_CFG_SRST))
        return 0;
    MAC_CSR_DATA = MAC_CR_TXEN | MAC_CR_FDPX;
    MAC_CSR_CMD = MAC_CSR_BUSY | MAC_CR;
    if (!wait_clear(&MAC_CSR_CMD, MAC_CSR_BUSY))
        return 0;
    TX_CFG = TX_CFG_TX_ON;

    uint8_t frame[FRAME_LEN];
    build_frame(frame, port & 0xFFFFu);
    TX_DATA_FIFO = TX_CMD_A_FIRST_SEGMENT | TX_CMD_A_LAST_SEGMENT | FRAME_LEN;
    TX_DATA_FIFO = (TX_CMD_B_TAG << 16) | FRAME_LEN;
    for (uint32_t i = 0; i < FRAME_LEN; i += 4) /* little-endian words, as the controller reads them */
        TX_DATA_FIFO = frame[i] | (uint32_t)frame[i + 1] << 8 | (uint32_t)frame[i + 2] << 16 |
                       (uint32_t)frame[i + 3] << 24;
    return (TX_FIFO_INF >> 16) & 0xFFu;
}
