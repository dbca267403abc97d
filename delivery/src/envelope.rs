//! CMS EnvelopedData (RFC 5652 § 6): content encrypted with AES-256-CBC under a fresh key, the
//! key encrypted to each recipient's RSA certificate (PKCS #1 v1.5 key transport, recipients
//! named by issuer and serial number); and opened again with a recipient's key.

use cms::builder::{
    ContentEncryptionAlgorithm, EnvelopedDataBuilder, KeyEncryptionInfo,
    KeyTransRecipientInfoBuilder,
};
use cms::cert::IssuerAndSerialNumber;
use cms::content_info::ContentInfo;
use cms::enveloped_data::{EnvelopedData, RecipientIdentifier, RecipientInfo};
use const_oid::db::{rfc5911, rfc5912};
use der::asn1::OctetString;
use der::{Any, Decode as _, Encode as _, Sequence};
use x509_cert::spki::AlgorithmIdentifierOwned;

use crate::certificate::Certificate;
use crate::error::DeliveryError;
use crate::identity::Identity;

fn cms_error(e: impl std::fmt::Debug) -> DeliveryError {
    DeliveryError::Cms(format!("{e:?}"))
}

/// `content` encrypted to every certificate of `recipients`: a DER `ContentInfo` of type
/// envelopedData, what the Ministry's `.p7e` file holds.
pub fn encrypt(content: &[u8], recipients: &[Certificate]) -> Result<Vec<u8>, DeliveryError> {
    if recipients.is_empty() {
        return Err(DeliveryError::Cms("encrypted to nobody".into()));
    }
    let mut rngs = vec![rand::rngs::OsRng; recipients.len()];
    let mut builder =
        EnvelopedDataBuilder::new(None, content, ContentEncryptionAlgorithm::Aes256Cbc, None)
            .map_err(cms_error)?;
    for (recipient, rng) in recipients.iter().zip(rngs.iter_mut()) {
        let tbs = &recipient.parsed.tbs_certificate;
        let rid = RecipientIdentifier::IssuerAndSerialNumber(IssuerAndSerialNumber {
            issuer: tbs.issuer.clone(),
            serial_number: tbs.serial_number.clone(),
        });
        let info = KeyEncryptionInfo::Rsa(recipient.rsa_public_key()?);
        builder
            .add_recipient_info(
                KeyTransRecipientInfoBuilder::new(rid, info, rng).map_err(cms_error)?,
            )
            .map_err(cms_error)?;
    }
    let enveloped = builder
        .build_with_rng(&mut rand::rngs::OsRng)
        .map_err(cms_error)?;
    let info = ContentInfo {
        content_type: rfc5911::ID_ENVELOPED_DATA,
        content: Any::encode_from(&enveloped)?,
    };
    Ok(info.to_der()?)
}

/// `RSAES-OAEP-params` (RFC 8017 A.2.1): the hash, SHA-1 when absent (the mask generation is
/// taken to use the same hash, as every writer does).
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
struct OaepParams {
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT", optional = "true")]
    hash: Option<AlgorithmIdentifierOwned>,
    #[asn1(context_specific = "1", tag_mode = "EXPLICIT", optional = "true")]
    mask: Option<AlgorithmIdentifierOwned>,
    #[asn1(context_specific = "2", tag_mode = "EXPLICIT", optional = "true")]
    label: Option<AlgorithmIdentifierOwned>,
}

/// The content of an envelopedData `ContentInfo` (DER or BER) encrypted to `identity`.
pub fn decrypt(enveloped: &[u8], identity: &Identity) -> Result<Vec<u8>, DeliveryError> {
    let der = crate::ber::to_der(enveloped)?;
    let info = ContentInfo::from_der(&der)?;
    if info.content_type != rfc5911::ID_ENVELOPED_DATA {
        return Err(DeliveryError::Cms(format!(
            "not CMS EnvelopedData (content type {})",
            info.content_type
        )));
    }
    let data: EnvelopedData = info.content.decode_as()?;
    let ours = &identity.certificate().parsed.tbs_certificate;
    let ktri = data
        .recip_infos
        .0
        .iter()
        .find_map(|r| match r {
            RecipientInfo::Ktri(k) => match &k.rid {
                RecipientIdentifier::IssuerAndSerialNumber(named)
                    if named.issuer == ours.issuer && named.serial_number == ours.serial_number =>
                {
                    Some(k)
                }
                _ => None,
            },
            _ => None,
        })
        .ok_or_else(|| {
            DeliveryError::NotForUs(format!(
                "ours: {} serial {}",
                identity.certificate().issuer(),
                identity.certificate().serial()
            ))
        })?;
    let wrapped = ktri.enc_key.as_bytes();
    let key = &identity.key;
    let content_key = match ktri.key_enc_alg.oid {
        rfc5912::RSA_ENCRYPTION => key.decrypt(rsa::Pkcs1v15Encrypt, wrapped),
        rfc5912::ID_RSAES_OAEP => {
            let params: OaepParams = match &ktri.key_enc_alg.parameters {
                Some(p) => p.decode_as()?,
                None => OaepParams {
                    hash: None,
                    mask: None,
                    label: None,
                },
            };
            match params.hash.map(|h| h.oid) {
                None | Some(rfc5912::ID_SHA_1) => {
                    key.decrypt(rsa::Oaep::new::<sha1::Sha1>(), wrapped)
                }
                Some(rfc5912::ID_SHA_256) => key.decrypt(rsa::Oaep::new::<sha2::Sha256>(), wrapped),
                Some(other) => {
                    return Err(DeliveryError::Cms(format!(
                        "RSA-OAEP with hash {other} is not supported"
                    )))
                }
            }
        }
        other => {
            return Err(DeliveryError::Cms(format!(
                "key transport {other} is not supported (RSA PKCS #1 v1.5 or OAEP)"
            )))
        }
    }
    .map_err(|_| DeliveryError::NotForUs("the content key does not decrypt with ours".into()))?;
    let encrypted = &data.encrypted_content;
    let ciphertext = encrypted
        .encrypted_content
        .as_ref()
        .ok_or_else(|| DeliveryError::Cms("the encrypted content is not in the file".into()))?
        .as_bytes();
    let iv: OctetString = encrypted
        .content_enc_alg
        .parameters
        .as_ref()
        .ok_or_else(|| DeliveryError::Cms("no IV".into()))?
        .decode_as()?;
    aes_cbc_decrypt(
        encrypted.content_enc_alg.oid,
        &content_key,
        iv.as_bytes(),
        ciphertext,
    )
}

fn aes_cbc_decrypt(
    algorithm: der::oid::ObjectIdentifier,
    key: &[u8],
    iv: &[u8],
    ciphertext: &[u8],
) -> Result<Vec<u8>, DeliveryError> {
    use aes::cipher::{block_padding::Pkcs7, BlockDecryptMut as _, KeyIvInit as _};
    let bad = |_| DeliveryError::Cms("the content does not decrypt (key, IV or padding)".into());
    match algorithm {
        rfc5911::ID_AES_256_CBC => cbc::Decryptor::<aes::Aes256>::new_from_slices(key, iv)
            .map_err(|_| DeliveryError::Cms("a key or IV of the wrong size".into()))?
            .decrypt_padded_vec_mut::<Pkcs7>(ciphertext)
            .map_err(bad),
        rfc5911::ID_AES_192_CBC => cbc::Decryptor::<aes::Aes192>::new_from_slices(key, iv)
            .map_err(|_| DeliveryError::Cms("a key or IV of the wrong size".into()))?
            .decrypt_padded_vec_mut::<Pkcs7>(ciphertext)
            .map_err(bad),
        rfc5911::ID_AES_128_CBC => cbc::Decryptor::<aes::Aes128>::new_from_slices(key, iv)
            .map_err(|_| DeliveryError::Cms("a key or IV of the wrong size".into()))?
            .decrypt_padded_vec_mut::<Pkcs7>(ciphertext)
            .map_err(bad),
        other => Err(DeliveryError::Cms(format!(
            "content encryption {other} is not supported (AES-CBC)"
        ))),
    }
}
