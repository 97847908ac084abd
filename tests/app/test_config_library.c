/* test_config_library.c: what the cluster XML says for the NCCL library:
 * each dimension's link kind (<dim link>, and the kinds the generators give
 * their dimensions) and <system library nccl-algo nccl-proto cpu collnet
 * gpu tuner>, with the GPU generation taken from <compute device> when gpu is not
 * written.
 *
 * Expected values are the definitions of the attributes (configs/README.md
 * tables): a rail's GPUs of a node are NVLink, its nodes the network; an
 * A100 is an Ampere GPU.  Every refused value must fail at its line.  Run
 * from the repository root.
 */
#include <check.h>
#include <string.h>

#include "sim/app/config.h"
#include "support/testutil.h"

/* A cluster whose line 3 is `network`'s body (one line), line 5 the
 * <system> element and line 6 the <compute> element (each one line). */
static char *
write_cluster (const char *network, const char *system, const char *compute)
{
  g_autofree char *text = g_strdup_printf ("<?xml version=\"1.0\"?>\n"        /* 1 */
                                           "<cluster><network>\n"               /* 2 */
                                           "%s\n"                               /* 3 */
                                           "</network>\n"                       /* 4 */
                                           "%s\n"                               /* 5 */
                                           "%s\n"                               /* 6 */
                                           "</cluster>\n",
                                           network, system, compute);
  return tu_write_file ("cluster.xml", text);
}

static const char two_dims[] = "<dim kind=\"Switch\" size=\"8\" bandwidth=\"450GB/s\" "
                               "latency=\"500ns\"/><dim kind=\"Switch\" size=\"2\" "
                               "bandwidth=\"400Gb/s\" latency=\"2us\"/>";

/* Load a cluster that must be accepted into cfg (initialised here). */
static void
load_ok (AppConfig *cfg, const char *network, const char *system, const char *compute)
{
  g_autofree char *path = write_cluster (network, system, compute);
  app_config_init (cfg);
  GError *error = NULL;
  ck_assert_msg (app_config_load_xml (cfg, path, &error), "%s\n%s\n%s: %s", network, system,
                 compute, error != NULL ? error->message : "");
}

/* A cluster that must be refused at `line` with a message holding needle. */
static void
load_fails (const char *network, const char *system, const char *compute, int line,
            const char *needle)
{
  g_autofree char *path = write_cluster (network, system, compute);
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  ck_assert_msg (!app_config_load_xml (&cfg, path, &error), "accepted: %s %s", system, compute);
  g_autofree char *where = g_strdup_printf ("%s:%d: ", path, line);
  tu_assert_input_error (error, where);
  tu_assert_input_error (error, needle);
  g_clear_error (&error);
  ck_assert_uint_eq (cfg.sources->len, 0);
  app_config_clear (&cfg);
}

/* <dim link>: each value lands in its dimension; absent is DEFAULT. */
START_TEST (test_dim_link)
{
  AppConfig cfg;
  load_ok (&cfg,
           "<dim kind=\"Ring\" size=\"2\" bandwidth=\"1GB/s\" latency=\"1ns\" link=\"nvlink\"/>"
           "<dim kind=\"Ring\" size=\"2\" bandwidth=\"1GB/s\" latency=\"1ns\" link=\"pcie\"/>"
           "<dim kind=\"Ring\" size=\"2\" bandwidth=\"1GB/s\" latency=\"1ns\" link=\"net\"/>"
           "<dim kind=\"Ring\" size=\"2\" bandwidth=\"1GB/s\" latency=\"1ns\"/>",
           "", "");
  ck_assert_uint_eq (cfg.net.n_dims, 4);
  ck_assert_int_eq (cfg.net.dims[0].link, NET_LINK_NVLINK);
  ck_assert_int_eq (cfg.net.dims[1].link, NET_LINK_PCIE);
  ck_assert_int_eq (cfg.net.dims[2].link, NET_LINK_NET);
  ck_assert_int_eq (cfg.net.dims[3].link, NET_LINK_DEFAULT);
  app_config_clear (&cfg);
  load_fails ("<dim kind=\"Ring\" size=\"2\" bandwidth=\"1GB/s\" latency=\"1ns\" "
              "link=\"infiniband\"/>",
              "", "", 3, "link 'infiniband' is not one of: nvlink, pcie, net");
  load_fails ("<dim kind=\"Ring\" size=\"2\" bandwidth=\"1GB/s\" latency=\"1ns\" link=\"NVLink\"/>",
              "", "", 3, "'NVLink'");
}
END_TEST

/* The generators' dimensions: a rail's node is NVLink and its nodes are
 * joined by NICs; every host of a fat tree or dragonfly leaves by its NIC;
 * a torus's chips are wired to each other directly (NVLink-class). */
START_TEST (test_generator_links)
{
  static const struct
  {
    const char *element;
    guint n_dims;
    NetLinkKind link[3];
  } cases[] = {
    { "<rail nodes=\"2\" gpus=\"4\" nvlink-bandwidth=\"450GB/s\" nvlink-latency=\"500ns\" "
      "nic-bandwidth=\"400Gb/s\" nic-latency=\"2us\"/>",
      2, { NET_LINK_NVLINK, NET_LINK_NET } },
    { "<fat-tree k=\"4\" bandwidth=\"400Gb/s\" latency=\"1us\"/>", 3,
      { NET_LINK_NET, NET_LINK_NET, NET_LINK_NET } },
    { "<dragonfly routers=\"2\" ranks-per-router=\"2\" global-links=\"1\" "
      "local-bandwidth=\"50GB/s\" local-latency=\"500ns\" global-bandwidth=\"25GB/s\" "
      "global-latency=\"1us\"/>",
      3, { NET_LINK_NET, NET_LINK_NET, NET_LINK_NET } },
    { "<torus dims=\"4x2\" bandwidth=\"50GB/s\" latency=\"500ns\"/>", 2,
      { NET_LINK_NVLINK, NET_LINK_NVLINK } },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      AppConfig cfg;
      load_ok (&cfg, cases[c].element, "", "");
      ck_assert_uint_eq (cfg.net.n_dims, cases[c].n_dims);
      for (guint d = 0; d < cases[c].n_dims; d++)
        ck_assert_msg (cfg.net.dims[d].link == cases[c].link[d], "case %u dim %u: %d", c, d,
                       cfg.net.dims[d].link);
      app_config_clear (&cfg);
    }
}
END_TEST

/* Without library attributes: the per-dimension library, Intel, no
 * CollNet, empty lists; every value written lands in SysParams.lib. */
START_TEST (test_library_values)
{
  AppConfig cfg;
  load_ok (&cfg, two_dims, "<system splits=\"4\"/>", "");
  const SysLibraryParams *lib = &cfg.sys.lib;
  ck_assert_int_eq (lib->library, SYS_LIBRARY_PER_DIMENSION);
  ck_assert_int_eq (lib->cpu, SYS_CPU_INTEL);
  ck_assert (!lib->collnet);
  ck_assert_str_eq (lib->algorithms, "");
  ck_assert_str_eq (lib->protocols, "");
  ck_assert_int_eq (lib->gpu, SYS_GPU_UNKNOWN); /* no device */
  app_config_clear (&cfg);
  load_ok (&cfg, two_dims, "<system library=\"per-dimension\" cpu=\"arm\"/>", "");
  ck_assert_int_eq (cfg.sys.lib.library, SYS_LIBRARY_PER_DIMENSION);
  ck_assert_int_eq (cfg.sys.lib.cpu, SYS_CPU_ARM);
  app_config_clear (&cfg);
  load_ok (&cfg, two_dims,
           "<system library=\"nccl\" nccl-algo=\"^ring;allreduce:tree\" nccl-proto=\"^LL128\" "
           "cpu=\"amd\" collnet=\"true\" splits=\"4\"><algorithm collective=\"all-reduce\" "
           "dims=\"ring direct\"/></system>",
           "<compute model=\"roofline\" device=\"H100-SXM\"/>");
  lib = &cfg.sys.lib;
  ck_assert_int_eq (lib->library, SYS_LIBRARY_NCCL);
  ck_assert_str_eq (lib->algorithms, "^ring;allreduce:tree");
  ck_assert_str_eq (lib->protocols, "^LL128");
  ck_assert_int_eq (lib->cpu, SYS_CPU_AMD);
  ck_assert (lib->collnet);
  ck_assert_int_eq (lib->gpu, SYS_GPU_HOPPER);
  /* The per-dimension knobs are still read (point-to-point uses them). */
  ck_assert_uint_eq (cfg.sys.splits, 4);
  ck_assert_str_eq (cfg.sys.impl[SYS_COLL_ALL_REDUCE][1], "direct");
  app_config_clear (&cfg);
  load_ok (&cfg, two_dims, "<system library=\"nccl\" collnet=\"false\"/>",
           "<compute device=\"H100-SXM\"/>");
  ck_assert (!cfg.sys.lib.collnet);
  app_config_clear (&cfg);
}
END_TEST

/* tuner: absent or "none" leaves NCCL's own model; "aws-ofi-nccl" names the
 * plugin's region tuner; refused with the per-dimension library and for
 * names the registry does not have. */
START_TEST (test_library_tuner)
{
  static const struct
  {
    const char *system;
    SysNcclTuner tuner;
  } cases[] = {
    { "<system library=\"nccl\"/>", SYS_NCCL_TUNER_NONE },
    { "<system library=\"nccl\" tuner=\"none\"/>", SYS_NCCL_TUNER_NONE },
    { "<system library=\"nccl\" tuner=\"aws-ofi-nccl\" net-latency=\"75us\"/>",
      SYS_NCCL_TUNER_AWS_OFI_NCCL },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      AppConfig cfg;
      load_ok (&cfg, two_dims, cases[c].system, "<compute device=\"H100-SXM\"/>");
      ck_assert_int_eq (cfg.sys.lib.tuner, cases[c].tuner);
      app_config_clear (&cfg);
    }
  AppConfig cfg;
  load_ok (&cfg, two_dims, "", "");
  ck_assert_int_eq (cfg.sys.lib.tuner, SYS_NCCL_TUNER_NONE);
  app_config_clear (&cfg);
  load_fails (two_dims, "<system tuner=\"aws-ofi-nccl\"/>", "", 5,
              "tuner applies only to library=\"nccl\"");
  load_fails (two_dims, "<system library=\"nccl\" tuner=\"aws\"/>",
              "<compute device=\"H100-SXM\"/>", 5, "tuner 'aws' is not one of: none, aws-ofi-nccl");
}
END_TEST

/* gpu absent: the generation of the compute device, preset or custom, by
 * product family; written: it wins over the device. */
START_TEST (test_library_gpu)
{
  static const struct
  {
    const char *compute;
    SysGpuArch gpu;
  } cases[] = {
    { "<compute device=\"A100-80GB\"/>", SYS_GPU_AMPERE },
    { "<compute device=\"H100-SXM\"/>", SYS_GPU_HOPPER },
    { "<compute device=\"H200\"/>", SYS_GPU_HOPPER },
    { "<compute device=\"B200\"/>", SYS_GPU_BLACKWELL },
    { "<compute device=\"V100\" dtype=\"fp16\"><device name=\"V100\" fp16=\"125TFLOP/s\" "
      "mem-bw=\"900GB/s\"/></compute>",
      SYS_GPU_VOLTA },
    { "<compute device=\"A100-40GB\"><device name=\"A100-40GB\" bf16=\"312TFLOP/s\" "
      "mem-bw=\"1555GB/s\"/></compute>",
      SYS_GPU_AMPERE },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      AppConfig cfg;
      load_ok (&cfg, two_dims, "<system library=\"nccl\"/>", cases[c].compute);
      ck_assert_msg (cfg.sys.lib.gpu == cases[c].gpu, "%s: %d", cases[c].compute,
                     cfg.sys.lib.gpu);
      app_config_clear (&cfg);
    }
  static const char *const named[] = { "volta", "ampere", "hopper", "blackwell" };
  static const SysGpuArch arch[] = { SYS_GPU_VOLTA, SYS_GPU_AMPERE, SYS_GPU_HOPPER,
                                     SYS_GPU_BLACKWELL };
  for (guint i = 0; i < G_N_ELEMENTS (named); i++)
    {
      g_autofree char *system = g_strdup_printf ("<system library=\"nccl\" gpu=\"%s\"/>",
                                                 named[i]);
      AppConfig cfg;
      load_ok (&cfg, two_dims, system, "<compute device=\"MI300X\"/>");
      ck_assert_int_eq (cfg.sys.lib.gpu, arch[i]);
      app_config_clear (&cfg);
      load_ok (&cfg, two_dims, system, "<compute device=\"A100-80GB\"/>");
      ck_assert_int_eq (cfg.sys.lib.gpu, arch[i]);
      app_config_clear (&cfg);
    }
  /* The per-dimension library needs no generation: an unknown one is fine. */
  AppConfig cfg;
  load_ok (&cfg, two_dims, "", "<compute device=\"MI300X\"/>");
  ck_assert_int_eq (cfg.sys.lib.gpu, SYS_GPU_UNKNOWN);
  app_config_clear (&cfg);
}
END_TEST

/* Every bad value fails at the <system> line (5), naming what is wrong. */
START_TEST (test_library_errors)
{
  static const struct
  {
    const char *system, *compute, *needle;
  } cases[] = {
    { "<system library=\"nccl\"/>", "<compute device=\"MI300X\"/>",
      "NCCL's tuning model has constants for volta, ampere, hopper and blackwell GPUs; "
      "device MI300X is none of them: set gpu=" },
    { "<system library=\"nccl\"/>",
      "<compute device=\"MyGPU\"><device name=\"MyGPU\" bf16=\"1PFLOP/s\" mem-bw=\"1TB/s\"/>"
      "</compute>",
      "device MyGPU is none of them" },
    { "<system library=\"nccl\"/>", "<compute peak=\"900TFLOP/s\"/>",
      "<compute> names no device" },
    { "<system library=\"nccl\"/>", "", "<compute> names no device" },
    { "<system library=\"mpi\"/>", "", "library 'mpi' is not one of: per-dimension, nccl" },
    { "<system library=\"NCCL\"/>", "", "library 'NCCL'" },
    { "<system library=\"nccl\" cpu=\"power\"/>", "<compute device=\"B200\"/>",
      "cpu 'power' is not one of: intel, amd, arm" },
    { "<system library=\"nccl\" gpu=\"pascal\"/>", "<compute device=\"B200\"/>",
      "gpu 'pascal' is not one of: volta, ampere, hopper, blackwell" },
    { "<system library=\"nccl\" collnet=\"yes\"/>", "<compute device=\"B200\"/>",
      "collnet 'yes' is not one of: false, true" },
    { "<system nccl-algo=\"tree\"/>", "", "nccl-algo applies only to library=\"nccl\"" },
    { "<system library=\"per-dimension\" nccl-proto=\"LL\"/>", "",
      "nccl-proto applies only to library=\"nccl\"" },
    { "<system collnet=\"false\"/>", "", "collnet applies only to library=\"nccl\"" },
    { "<system library=\"nccl\" colnet=\"true\"/>", "", "unknown attribute 'colnet'" },
    /* The lists' names, checked by the NCCL model's parser. */
    { "<system library=\"nccl\" nccl-algo=\"rnig\"/>", "<compute device=\"H100-SXM\"/>",
      "nccl-algo=\"rnig\": unknown name 'rnig'" },
    { "<system library=\"nccl\" nccl-proto=\"LL,LL129\"/>", "<compute device=\"H100-SXM\"/>",
      "nccl-proto=\"LL,LL129\": unknown name 'LL129'" },
    { "<system library=\"nccl\" nccl-algo=\"allreduce:tree;ring\"/>",
      "<compute device=\"H100-SXM\"/>", "only the first entry may omit a function prefix" },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    load_fails (two_dims, cases[c].system, cases[c].compute, 5, cases[c].needle);
  /* A list longer than SysLibraryParams holds (127 characters); the
   * longest that fits: "^Simple" and 40 x ",LL" (7 + 120 characters). */
  GString *list = g_string_new ("^Simple");
  for (guint i = 0; i < 40; i++)
    g_string_append (list, ",LL");
  g_autofree char *longest = g_string_free (list, FALSE);
  g_autofree char *too_long = g_strnfill (SYS_NCCL_LIST_MAX, 'x');
  g_autofree char *fits = g_strdup_printf ("<system library=\"nccl\" nccl-proto=\"%s\"/>",
                                           longest);
  g_autofree char *over = g_strdup_printf ("<system library=\"nccl\" nccl-algo=\"%s\"/>",
                                           too_long);
  AppConfig cfg;
  load_ok (&cfg, two_dims, fits, "<compute device=\"H200\"/>");
  ck_assert_uint_eq (strlen (cfg.sys.lib.protocols), SYS_NCCL_LIST_MAX - 1);
  app_config_clear (&cfg);
  load_fails (two_dims, over, "<compute device=\"H200\"/>", 5,
              "nccl-algo is longer than 127 characters");
}
END_TEST

static Suite *
config_library_suite (void)
{
  Suite *s = suite_create ("config_library");
  TCase *tc = tu_tcase (s, "xml", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_dim_link);
  tcase_add_test (tc, test_generator_links);
  tcase_add_test (tc, test_library_values);
  tcase_add_test (tc, test_library_gpu);
  tcase_add_test (tc, test_library_tuner);
  tcase_add_test (tc, test_library_errors);
  return s;
}

int
main (void)
{
  return tu_run_suite (config_library_suite ());
}
