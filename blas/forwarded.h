/* forwarded.h - the BLAS routines libmmtuned_blas.so forwards to the system BLAS: every
 * function Debian's reference libblas.so.3 (libblas3 3.11.0-2) exports, but the four it serves
 * (sgemm_, dgemm_, cblas_sgemm, cblas_dgemm) and cblas_xerbla (its own, in xerbla.c).
 * Generated once with
 *   nm -D --defined-only /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 | awk '$2=="T"{print $3}' | LC_ALL=C sort
 * less those five; tests/cli_install.sh checks that the installed library's exports equal the
 * reference's. X(name) once per routine. */
#ifndef MMTB_FORWARDED_H
#define MMTB_FORWARDED_H

#define MMTB_FORWARDED(X) \
    X(caxpy_)             X(cblas_caxpy)        X(cblas_ccopy)        X(cblas_cdotc_sub)    X(cblas_cdotu_sub) \
    X(cblas_cgbmv)        X(cblas_cgemm)        X(cblas_cgemv)        X(cblas_cgerc)        X(cblas_cgeru) \
    X(cblas_chbmv)        X(cblas_chemm)        X(cblas_chemv)        X(cblas_cher)         X(cblas_cher2) \
    X(cblas_cher2k)       X(cblas_cherk)        X(cblas_chpmv)        X(cblas_chpr)         X(cblas_chpr2) \
    X(cblas_crotg)        X(cblas_cscal)        X(cblas_csrot)        X(cblas_csscal)       X(cblas_cswap) \
    X(cblas_csymm)        X(cblas_csyr2k)       X(cblas_csyrk)        X(cblas_ctbmv)        X(cblas_ctbsv) \
    X(cblas_ctpmv)        X(cblas_ctpsv)        X(cblas_ctrmm)        X(cblas_ctrmv)        X(cblas_ctrsm) \
    X(cblas_ctrsv)        X(cblas_dasum)        X(cblas_daxpy)        X(cblas_dcabs1)       X(cblas_dcopy) \
    X(cblas_ddot)         X(cblas_dgbmv)        X(cblas_dgemv)        X(cblas_dger)         X(cblas_dnrm2) \
    X(cblas_drot)         X(cblas_drotg)        X(cblas_drotm)        X(cblas_drotmg)       X(cblas_dsbmv) \
    X(cblas_dscal)        X(cblas_dsdot)        X(cblas_dspmv)        X(cblas_dspr)         X(cblas_dspr2) \
    X(cblas_dswap)        X(cblas_dsymm)        X(cblas_dsymv)        X(cblas_dsyr)         X(cblas_dsyr2) \
    X(cblas_dsyr2k)       X(cblas_dsyrk)        X(cblas_dtbmv)        X(cblas_dtbsv)        X(cblas_dtpmv) \
    X(cblas_dtpsv)        X(cblas_dtrmm)        X(cblas_dtrmv)        X(cblas_dtrsm)        X(cblas_dtrsv) \
    X(cblas_dzasum)       X(cblas_dznrm2)       X(cblas_icamax)       X(cblas_idamax)       X(cblas_isamax) \
    X(cblas_izamax)       X(cblas_sasum)        X(cblas_saxpy)        X(cblas_scabs1)       X(cblas_scasum) \
    X(cblas_scnrm2)       X(cblas_scopy)        X(cblas_sdot)         X(cblas_sdsdot)       X(cblas_sgbmv) \
    X(cblas_sgemv)        X(cblas_sger)         X(cblas_snrm2)        X(cblas_srot)         X(cblas_srotg) \
    X(cblas_srotm)        X(cblas_srotmg)       X(cblas_ssbmv)        X(cblas_sscal)        X(cblas_sspmv) \
    X(cblas_sspr)         X(cblas_sspr2)        X(cblas_sswap)        X(cblas_ssymm)        X(cblas_ssymv) \
    X(cblas_ssyr)         X(cblas_ssyr2)        X(cblas_ssyr2k)       X(cblas_ssyrk)        X(cblas_stbmv) \
    X(cblas_stbsv)        X(cblas_stpmv)        X(cblas_stpsv)        X(cblas_strmm)        X(cblas_strmv) \
    X(cblas_strsm)        X(cblas_strsv)        X(cblas_zaxpy)        X(cblas_zcopy)        X(cblas_zdotc_sub) \
    X(cblas_zdotu_sub)    X(cblas_zdrot)        X(cblas_zdscal)       X(cblas_zgbmv)        X(cblas_zgemm) \
    X(cblas_zgemv)        X(cblas_zgerc)        X(cblas_zgeru)        X(cblas_zhbmv)        X(cblas_zhemm) \
    X(cblas_zhemv)        X(cblas_zher)         X(cblas_zher2)        X(cblas_zher2k)       X(cblas_zherk) \
    X(cblas_zhpmv)        X(cblas_zhpr)         X(cblas_zhpr2)        X(cblas_zrotg)        X(cblas_zscal) \
    X(cblas_zswap)        X(cblas_zsymm)        X(cblas_zsyr2k)       X(cblas_zsyrk)        X(cblas_ztbmv) \
    X(cblas_ztbsv)        X(cblas_ztpmv)        X(cblas_ztpsv)        X(cblas_ztrmm)        X(cblas_ztrmv) \
    X(cblas_ztrsm)        X(cblas_ztrsv)        X(ccopy_)             X(cdotc_)             X(cdotcsub_) \
    X(cdotu_)             X(cdotusub_)          X(cgbmv_)             X(cgemm_)             X(cgemv_) \
    X(cgerc_)             X(cgeru_)             X(chbmv_)             X(chemm_)             X(chemv_) \
    X(cher2_)             X(cher2k_)            X(cher_)              X(cherk_)             X(chpmv_) \
    X(chpr2_)             X(chpr_)              X(crotg_)             X(cscal_)             X(csrot_) \
    X(csscal_)            X(cswap_)             X(csymm_)             X(csyr2k_)            X(csyrk_) \
    X(ctbmv_)             X(ctbsv_)             X(ctpmv_)             X(ctpsv_)             X(ctrmm_) \
    X(ctrmv_)             X(ctrsm_)             X(ctrsv_)             X(dasum_)             X(dasumsub_) \
    X(daxpy_)             X(dcabs1_)            X(dcabs1sub_)         X(dcopy_)             X(ddot_) \
    X(ddotsub_)           X(dgbmv_)             X(dgemv_)             X(dger_)              X(dnrm2_) \
    X(dnrm2sub_)          X(drot_)              X(drotg_)             X(drotm_)             X(drotmg_) \
    X(dsbmv_)             X(dscal_)             X(dsdot_)             X(dsdotsub_)          X(dspmv_) \
    X(dspr2_)             X(dspr_)              X(dswap_)             X(dsymm_)             X(dsymv_) \
    X(dsyr2_)             X(dsyr2k_)            X(dsyr_)              X(dsyrk_)             X(dtbmv_) \
    X(dtbsv_)             X(dtpmv_)             X(dtpsv_)             X(dtrmm_)             X(dtrmv_) \
    X(dtrsm_)             X(dtrsv_)             X(dzasum_)            X(dzasumsub_)         X(dznrm2_) \
    X(dznrm2sub_)         X(icamax_)            X(icamaxsub_)         X(idamax_)            X(idamaxsub_) \
    X(isamax_)            X(isamaxsub_)         X(izamax_)            X(izamaxsub_)         X(lsame_) \
    X(sasum_)             X(sasumsub_)          X(saxpy_)             X(scabs1_)            X(scabs1sub_) \
    X(scasum_)            X(scasumsub_)         X(scnrm2_)            X(scnrm2sub_)         X(scopy_) \
    X(sdot_)              X(sdotsub_)           X(sdsdot_)            X(sdsdotsub_)         X(sgbmv_) \
    X(sgemv_)             X(sger_)              X(snrm2_)             X(snrm2sub_)          X(srot_) \
    X(srotg_)             X(srotm_)             X(srotmg_)            X(ssbmv_)             X(sscal_) \
    X(sspmv_)             X(sspr2_)             X(sspr_)              X(sswap_)             X(ssymm_) \
    X(ssymv_)             X(ssyr2_)             X(ssyr2k_)            X(ssyr_)              X(ssyrk_) \
    X(stbmv_)             X(stbsv_)             X(stpmv_)             X(stpsv_)             X(strmm_) \
    X(strmv_)             X(strsm_)             X(strsv_)             X(xerbla_)            X(xerbla_array_) \
    X(zaxpy_)             X(zcopy_)             X(zdotc_)             X(zdotcsub_)          X(zdotu_) \
    X(zdotusub_)          X(zdrot_)             X(zdscal_)            X(zgbmv_)             X(zgemm_) \
    X(zgemv_)             X(zgerc_)             X(zgeru_)             X(zhbmv_)             X(zhemm_) \
    X(zhemv_)             X(zher2_)             X(zher2k_)            X(zher_)              X(zherk_) \
    X(zhpmv_)             X(zhpr2_)             X(zhpr_)              X(zrotg_)             X(zscal_) \
    X(zswap_)             X(zsymm_)             X(zsyr2k_)            X(zsyrk_)             X(ztbmv_) \
    X(ztbsv_)             X(ztpmv_)             X(ztpsv_)             X(ztrmm_)             X(ztrmv_) \
    X(ztrsm_)             X(ztrsv_)

#endif
